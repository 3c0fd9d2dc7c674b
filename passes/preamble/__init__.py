"""The State Value Array and the kernel preamble that sets it up."""
