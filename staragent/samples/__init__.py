"""staragent.samples"""
