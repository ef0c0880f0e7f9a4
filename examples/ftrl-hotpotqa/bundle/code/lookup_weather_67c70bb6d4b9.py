import json

def lookup_weather_67c70bb6d4b9(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
