import json

def convert_units_85f2ca4bcccd(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
