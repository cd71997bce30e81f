"""JNH53x: lax control flow: a loop carry whose type changes from one step to the next,
branches of cond or switch that return different types."""
