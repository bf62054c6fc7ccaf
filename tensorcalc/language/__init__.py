"""The language stage: text to an expression DAG (grammar, syntax, sugar, meaning, matrix
input, indexing, element-wise definitions)."""
