import json

def lookup_weather_cc0f423693ce(**arguments):
    return "nothing relevant for " + json.dumps(arguments, sort_keys=True)
