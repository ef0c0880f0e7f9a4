import json

def lookup_weather_3576a48b18fe(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
