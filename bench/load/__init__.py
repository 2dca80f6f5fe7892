"""The load test on the production topology (`make load`); see __main__."""
