import json

def convert_units_0524bca4c1ef(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
