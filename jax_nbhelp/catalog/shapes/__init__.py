"""JNH56x: shapes that do not fit: broadcasting, matrix products, reshapes and concatenation,
named with the operands as the user wrote them and their shapes."""
