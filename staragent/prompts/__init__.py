"""staragent.prompts"""
