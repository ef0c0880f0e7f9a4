import json

def convert_units_d40a53fe598e(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
