"""Computing the surface sensible-heat flux of a column-physics package that runs its physics in a lower precision than the land/dynamics state, choosing the land or sea formula with lax.cond."""

URL = "https://github.com/climate-analytics-lab/jax-gcm/issues/797"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''physics_dtype = jnp.float16          # physics runs in reduced precision

# air-temperature and skin-temperature anomalies (K) for 4 columns
land_state = {"t_skin": jnp.array([3.1, 2.4, -0.8, 1.7], dtype=jnp.float32)}  # from the land model
t_air = jnp.array([1.0, 1.5, -2.0, 0.5])
sst = jnp.array([0.4, 0.9, -1.1, 0.2])
wind = jnp.array([4.0, 6.5, 2.0, 8.0])

@jax.jit
def sensible_heat_flux(land_state, t_air, sst, wind, over_land):
    ta = t_air.astype(physics_dtype)
    u = wind.astype(physics_dtype)
    ts = sst.astype(physics_dtype)
    c = jnp.asarray(1.2 * 1004.0 * 1.3e-3, physics_dtype)   # rho * cp * C_H
    return lax.cond(over_land,
                    lambda: c * u * (land_state["t_skin"] - ta),
                    lambda: c * u * (ts - ta))''',
    "flux = sensible_heat_flux(land_state, t_air, sst, wind, True)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom jax import lax",
    '''physics_dtype = jnp.float16          # physics runs in reduced precision

# air-temperature and skin-temperature anomalies (K) for 4 columns
land_state = {"t_skin": jnp.array([3.1, 2.4, -0.8, 1.7], dtype=jnp.float32)}  # from the land model
t_air = jnp.array([1.0, 1.5, -2.0, 0.5])
sst = jnp.array([0.4, 0.9, -1.1, 0.2])
wind = jnp.array([4.0, 6.5, 2.0, 8.0])

@jax.jit
def sensible_heat_flux(land_state, t_air, sst, wind, over_land):
    ta = t_air.astype(physics_dtype)
    u = wind.astype(physics_dtype)
    ts = sst.astype(physics_dtype)
    t_skin = land_state["t_skin"].astype(physics_dtype)
    c = jnp.asarray(1.2 * 1004.0 * 1.3e-3, physics_dtype)   # rho * cp * C_H
    return lax.cond(over_land,
                    lambda: c * u * (t_skin - ta),
                    lambda: c * u * (ts - ta))''',
    "flux = sensible_heat_flux(land_state, t_air, sst, wind, True)",
)
CHECK = "flux.dtype == jnp.float16 and np.allclose(np.asarray(flux, dtype=np.float64), 1.2 * 1004.0 * 1.3e-3 * np.array([4.0, 6.5, 2.0, 8.0]) * (np.array([3.1, 2.4, -0.8, 1.7]) - np.array([1.0, 1.5, -2.0, 0.5])), rtol=1e-2, atol=1e-2)"
