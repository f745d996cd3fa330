"""staragent.index"""
