"""The local web application: a human seat in the browser (``collabrl serve``) and a trajectory
viewer (``collabrl view``).

Why a package of its own: it sits on top of everything else (games, players, records) and
needs an ASGI stack (Starlette on uvicorn, the ``web`` extra) that nothing below it imports.
The front end is plain files under ``static/``: no build step, shipped as package data.
"""
