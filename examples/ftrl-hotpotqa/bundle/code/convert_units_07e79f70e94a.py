import json

def convert_units_07e79f70e94a(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
