"""The agents that ship with eleusis-lab (the folder agents/, installed as ``eleusis_agents``).

Each is registered by name as an entry point of the group ``eleusis_lab.agents`` (those of
Secrets, ``eleusis_lab.secrets_agents``) in the project's ``pyproject.toml``, which is how
`eleusis_lab.registry` finds ``random``, ``oracle``, ``tree``, ``bayes`` and the rest.
"""
