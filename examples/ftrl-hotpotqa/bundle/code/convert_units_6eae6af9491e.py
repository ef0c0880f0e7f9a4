import json

def convert_units_6eae6af9491e(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
