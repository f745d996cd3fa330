"""staragent.bench"""
