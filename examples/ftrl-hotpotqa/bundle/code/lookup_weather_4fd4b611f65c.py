import json

def lookup_weather_4fd4b611f65c(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
