tool = 3
