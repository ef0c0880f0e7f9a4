import json

def convert_units_ce51ce6e0aff(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
