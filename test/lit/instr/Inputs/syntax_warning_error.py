# A hooks file whose syntax error comes after something Python warns about at compile time
# (fuzz campaign, seed 31, python-hooks 308: the SyntaxWarning was a second stderr line).
from luthier.frontend.hooks import HookModule

hooks = HookModule()
sizes = [dim 0xfor dim in "xyz"]
