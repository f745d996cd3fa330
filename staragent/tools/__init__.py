"""staragent.tools"""
