"""What a finished study gives: the export's files and the report's statistics."""
