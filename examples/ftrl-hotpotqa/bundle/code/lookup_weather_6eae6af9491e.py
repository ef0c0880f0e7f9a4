import json

def lookup_weather_6eae6af9491e(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
