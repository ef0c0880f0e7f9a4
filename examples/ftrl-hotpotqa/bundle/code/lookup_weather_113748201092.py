import json

def lookup_weather_113748201092(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
