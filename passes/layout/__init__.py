"""Layout: payloads spliced into the code, tool globals, descriptors, branch relaxation."""
