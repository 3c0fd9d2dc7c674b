# A hooks file that raises what is not an Exception.
raise GeneratorExit("closed")
