"""JNH4xx: what vmap, pmap and donation expect: axis names, in_axes, donated buffers."""
