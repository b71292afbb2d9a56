"""The HTTP API over the read model (FastAPI): `app.create_app(deps)` with `deps.ApiDeps`.

Nothing is imported here, so processes that only need `deps` (the bootstrap) do not
pay for importing FastAPI.
"""
