import json

def convert_units_70015a9257b1(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
