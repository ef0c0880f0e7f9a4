import json

def lookup_weather_d40a53fe598e(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
