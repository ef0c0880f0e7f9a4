import json

def convert_units_a61146153ca7(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
