"""The gbmj server: pure rules and game engine, plus the trio lobby server around them."""
