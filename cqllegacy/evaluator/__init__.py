"""Running a core query on games: query analysis, one lowering step, physical operators, drivers."""
