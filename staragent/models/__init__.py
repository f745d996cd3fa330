"""staragent.models"""
