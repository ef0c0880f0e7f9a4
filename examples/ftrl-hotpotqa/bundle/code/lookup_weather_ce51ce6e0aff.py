import json

def lookup_weather_ce51ce6e0aff(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
