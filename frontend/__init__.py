"""Code-object reader, decoder/disassembler, lifter, assembly parser and hook frontends."""
