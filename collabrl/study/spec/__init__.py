"""The study file: its schema, compile to a routing graph, its pure logic and lint."""
