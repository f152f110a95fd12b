raise ImportError("this submodule needs a library that is not installed")
