"""Benchmarking a jitted log-replay rollout of a small driving-scenario simulator state, advancing it one step at a time until the logged trajectory runs out."""

URL = "https://github.com/waymo-research/waymax/issues/14"
KIND = "fix"
CELLS = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''class SimulatorState(NamedTuple):
    log_xy: jax.Array     # (num_objects, num_timesteps, 2) logged positions
    sim_xy: jax.Array     # (num_objects, num_timesteps, 2) positions written by the simulator
    odometer: jax.Array   # (num_objects,) distance driven in simulation so far
    timestep: jax.Array   # int32 scalar, current step

    @property
    def remaining_timesteps(self):
        return self.log_xy.shape[1] - 1 - self.timestep

def update_state_by_log(state, num_steps=1):
    """Advance the simulation by copying the logged positions of the next step(s)."""
    t = state.timestep + num_steps
    new_xy = state.log_xy[:, t]
    old_xy = state.sim_xy[:, t - num_steps]
    return state._replace(sim_xy=state.sim_xy.at[:, t].set(new_xy),
                          odometer=state.odometer + jnp.linalg.norm(new_xy - old_xy, axis=-1),
                          timestep=t)

# three agents on circular arcs, 41 logged steps; simulation starts after 10 steps of history
T, INIT = 41, 10
tt = jnp.arange(T) * 0.1
radius = jnp.array([5.0, 8.0, 12.0])[:, None]
omega = jnp.array([0.5, -0.3, 0.2])[:, None]
log_xy = jnp.stack([radius * jnp.cos(omega * tt), radius * jnp.sin(omega * tt)], axis=-1)
sim_xy = jnp.where((jnp.arange(T) <= INIT)[None, :, None], log_xy, 0.0)
scenario = SimulatorState(log_xy, sim_xy, jnp.zeros(3), jnp.int32(INIT))

@jax.jit
def replay_to_end(state):
    for _ in range(state.remaining_timesteps):
        state = update_state_by_log(state, num_steps=1)
    return state''',
    "final = replay_to_end(scenario)",
)
FIXED = (
    "import jax, jax.numpy as jnp\nimport numpy as np\nfrom typing import NamedTuple",
    '''class SimulatorState(NamedTuple):
    log_xy: jax.Array     # (num_objects, num_timesteps, 2) logged positions
    sim_xy: jax.Array     # (num_objects, num_timesteps, 2) positions written by the simulator
    odometer: jax.Array   # (num_objects,) distance driven in simulation so far
    timestep: jax.Array   # int32 scalar, current step

    @property
    def remaining_timesteps(self):
        return self.log_xy.shape[1] - 1 - self.timestep

def update_state_by_log(state, num_steps=1):
    """Advance the simulation by copying the logged positions of the next step(s)."""
    t = state.timestep + num_steps
    new_xy = state.log_xy[:, t]
    old_xy = state.sim_xy[:, t - num_steps]
    return state._replace(sim_xy=state.sim_xy.at[:, t].set(new_xy),
                          odometer=state.odometer + jnp.linalg.norm(new_xy - old_xy, axis=-1),
                          timestep=t)

# three agents on circular arcs, 41 logged steps; simulation starts after 10 steps of history
T, INIT = 41, 10
tt = jnp.arange(T) * 0.1
radius = jnp.array([5.0, 8.0, 12.0])[:, None]
omega = jnp.array([0.5, -0.3, 0.2])[:, None]
log_xy = jnp.stack([radius * jnp.cos(omega * tt), radius * jnp.sin(omega * tt)], axis=-1)
sim_xy = jnp.where((jnp.arange(T) <= INIT)[None, :, None], log_xy, 0.0)
scenario = SimulatorState(log_xy, sim_xy, jnp.zeros(3), jnp.int32(INIT))

@jax.jit
def replay_to_end(state):
    return jax.lax.fori_loop(0, state.remaining_timesteps,
                             lambda _, s: update_state_by_log(s, num_steps=1), state)''',
    "final = replay_to_end(scenario)",
)
# Reference: closed-form arc positions and the summed chord lengths between steps 10..40.
CHECK = ("(lambda t, r, w: int(final.timestep) == 40 and int(final.remaining_timesteps) == 0 "
         "and np.allclose(np.asarray(final.sim_xy), np.stack([r * np.cos(w * t), r * np.sin(w * t)], axis=-1), atol=1e-5) "
         "and np.allclose(np.asarray(final.odometer), 30 * 2 * r[:, 0] * np.abs(np.sin(w[:, 0] * 0.1 / 2)), rtol=1e-4))"
         "(np.arange(41) * 0.1, np.array([[5.0], [8.0], [12.0]]), np.array([[0.5], [-0.3], [0.2]]))")
