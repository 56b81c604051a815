print("host: not yet")
