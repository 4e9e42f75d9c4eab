"""The server's import namespace: ``tabletop_server.service`` and ``tabletop_server.rest``.

The code lives in the repository's top-level ``service/`` and ``rest/`` folders; ``service`` and
``rest`` here are symbolic links to them. Installed, the wheel holds real copies under this name,
so the server never puts bare ``service`` or ``rest`` modules into site-packages, where they would
clash with other projects. Import the server only by these names (tests/engine/test_layers.py
checks), never as top-level ``service``/``rest``: those would be second copies of every module.
"""
