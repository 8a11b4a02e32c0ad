"""``collabrl study serve``: the Starlette app over the runtime, and the admin page."""
