import json

def convert_units_ef921f2d4bee(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
