"""The bottom layer: squares, pieces, rays, SAN reading, game results and script spans."""
