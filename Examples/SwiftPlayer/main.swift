print("player")
