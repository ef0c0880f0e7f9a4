import json

def convert_units_a9603a8972ec(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
