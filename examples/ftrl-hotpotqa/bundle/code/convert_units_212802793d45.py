import json

def convert_units_212802793d45(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
