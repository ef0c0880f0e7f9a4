import json

def convert_units_c5375692d6f0(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
