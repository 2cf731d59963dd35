"""Foundation: the data models, params, artefact files, the store of finished work and the HTTP client."""
