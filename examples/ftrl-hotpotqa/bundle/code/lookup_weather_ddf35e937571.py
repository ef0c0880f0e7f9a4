import json

def lookup_weather_ddf35e937571(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
