"""staragent.agent"""
