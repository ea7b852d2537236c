"""Run planning: rubric orderings, swap and list-wise slot assignments, repetitions."""
