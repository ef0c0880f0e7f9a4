import json

def lookup_weather_c5375692d6f0(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
