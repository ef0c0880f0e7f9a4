import json

def lookup_weather_a9603a8972ec(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
