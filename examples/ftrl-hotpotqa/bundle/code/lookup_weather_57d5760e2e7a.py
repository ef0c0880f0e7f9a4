import json

def lookup_weather_57d5760e2e7a(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
