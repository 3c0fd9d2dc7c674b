# A hooks file that runs, with a compile-time SyntaxWarning ("is" with a literal): the
# warning is one line of ours, after which the run goes on.
from luthier.frontend.hooks import HookModule

hooks = HookModule()
same = "a" is "a"
